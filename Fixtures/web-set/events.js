// Builds the events listing at load time: 288 events grouped by month, each with a paragraph.
// Seeded (mulberry32), so every load builds the same document.
(function () {
  "use strict";
  function mulberry32(a) {
    return function () {
      a |= 0; a = (a + 0x6D2B79F5) | 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  var rnd = mulberry32(505);
  function pick(list) { return list[Math.floor(rnd() * list.length)]; }
  var kinds = ["Concert", "Guided walk", "Market", "Lecture", "Workshop", "Film night", "Open day",
               "Reading", "Tasting", "Exhibition", "Family day", "Harbour tour"];
  var topics = ["sea shanties", "the old rail yard", "urban beekeeping", "the 1953 flood", "bread baking",
                "local birds", "jazz standards", "bicycle repair", "maps of the city", "winter vegetables",
                "the ferry fleet", "printmaking", "street photography", "tide tables", "knitting for beginners"];
  var places = ["Market hall", "Central library", "Customs pier", "East side community centre", "Town hall",
                "Museum of the harbour", "University aula", "St. Olaf's church", "Rail yard sheds", "Botanic garden"];
  var notes = ["Free entry", "Booking required", "Suitable for all ages", "Coffee and tea afterwards",
               "Step-free access from the north side", "Limited places, so come early", "Bring your own tools",
               "Led by volunteers from the neighbourhood", "Children under twelve with an adult",
               "Tickets at the door or in the library", "Part of the winter programme",
               "Bike racks by the entrance", "In English and Norwegian", "Dress for the weather",
               "Followed by a short question time", "Materials are provided", "Doors open half an hour before"];
  var months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"];
  function sentence() {
    var n = 1 + Math.floor(rnd() * 3), parts = [];
    for (var i = 0; i < n; i++) parts.push(pick(notes));
    return parts.join(". ") + ".";
  }
  function build() {
    var root = document.getElementById("events");
    var toc = document.getElementById("months");
    var count = 0;
    for (var m = 0; m < 12; m++) {
      var section = document.createElement("section");
      section.id = "m" + (m + 1);
      var h = document.createElement("h2");
      h.textContent = months[m] + " 2024";
      section.appendChild(h);
      var list = document.createElement("ol");
      list.className = "events";
      var days = [];
      for (var e = 0; e < 24; e++) days.push([1 + Math.floor(rnd() * 28), 9 + Math.floor(rnd() * 12)]);
      days.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
      for (e = 0; e < 24; e++) {
        var li = document.createElement("li");
        var day = days[e][0], hour = days[e][1];
        var title = pick(kinds) + ": " + pick(topics);
        li.innerHTML = '<span class="when">' + day + " " + months[m].slice(0, 3) + ", " + hour + ":00</span> " +
          '<strong></strong> <span class="where"></span><p></p>';
        li.querySelector("strong").textContent = title;
        li.querySelector(".where").textContent = "\u2014 " + pick(places);
        li.querySelector("p").textContent = sentence() + " " + sentence();
        list.appendChild(li);
        count++;
      }
      section.appendChild(list);
      root.appendChild(section);
      var a = document.createElement("a");
      a.href = "#m" + (m + 1);
      a.textContent = months[m];
      toc.appendChild(a);
    }
    document.getElementById("count").textContent = count + " events";
    document.body.setAttribute("data-built", "yes");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", build);
  else build();
})();
